# square.s — sample QPU program for the CLI and stock-Lua tests: squares 16
# floats read with a TMU direct lookup and stores them with a VDW DMA.
# Uniforms: input address, VPM write setup, VDW setup, output address.
start:
        mov r1, unif            # input address
        mov r0, elem_num
        shl r0, r0, 2           # lane * 4
        add tmu0_s, r1, r0      # fetch in[lane]
        nop ; nop ; ldtmu0
        nop ; fmul r2, r4, r4   # square
        mov vw_setup, unif
        mov vpm, r2
        mov vw_setup, unif
        mov vw_addr, unif
        mov -, vw_wait
        nop ; nop ; thrend
        nop
        nop
