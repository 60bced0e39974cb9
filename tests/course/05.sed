s/^local DEPTH_CLEAR = 1.0 /local DEPTH_CLEAR = 0.5 /
