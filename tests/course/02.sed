s/^local OFFSET = {x = 0, y = 0}/local OFFSET = {x = -40, y = -40}/
