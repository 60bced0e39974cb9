// a loop over r1 samples
    ldimm r0l, 0
top:
    iadd r1l, 0, r1l, lsl 1   # shift
    while r0l, r1l, 1, ult
    jmp_any top ; pop_exec 1
    iter.long r6, cf1
    stop
