s/^local BLEND = "add" .*/local BLEND = {src = "constant_color", dst = "one", color = {0.5, 0.5, 0.5, 1}}/
