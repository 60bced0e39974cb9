zs_emit 255
zs_emit r5h
mov r0, sr66
