s/^local PREDICTED = nil .*/local PREDICTED = {114, 117, 24}/
