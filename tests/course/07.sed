s/^local EDGE_X = 64.5 /local EDGE_X = 64.75 /
