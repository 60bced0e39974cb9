s/^local MODES = {qpu = "perspective", sass = "perspective", agx = "screen"}$/local MODES = {qpu = "perspective", sass = "perspective", agx = "perspective"}/
