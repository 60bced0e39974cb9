s/^local SPLIT = 160.5$/local SPLIT = 160.625/
