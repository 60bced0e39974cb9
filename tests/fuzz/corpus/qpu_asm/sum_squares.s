# sum_squares.s — the sum of the squares of 512 integers, split over 8 QPUs.
#
# Uniforms: i (this QPU's index, 0..7), the address of its 4 rows of 16 words
# (64-byte pitch), the address of the 16-word result.
#
# Each QPU DMA-loads its 4 rows into VPM rows 4i..4i+3 (holding the mutex
# while it uses the DMA engine), squares and sums them column-wise, writes its
# 16 partial sums to VPM row 32+i and releases semaphore 0. QPU 0 then
# acquires semaphore 0 eight times (once per QPU, itself included), adds the
# eight partial rows, sums the 16 lanes with vector rotations and stores the
# total (in every lane) with a VDW DMA.

        mov ra0, unif                   # i
        mov ra1, unif                   # input address
        mov ra2, unif                   # result address
        ldi r1, 0x83041000              # VCD load: 32-bit, 64-byte pitch, 4 rows of 16, VPM pitch 1
        shl r0, ra0, 6                  # Y = 4i, in ADDRXY bits 9:4
        mov -, mutex                    # acquire the mutex around the DMA engine
        or vr_setup, r0, r1
        mov vr_addr, ra1                # start the load
        mov -, vr_wait                  # wait until it is done
        mov mutex_release, 1
        ldi r1, 0x00401a00              # generic read: 4 vectors, horizontal 32-bit, stride 1
        shl r0, ra0, 2                  # from row 4i
        or vr_setup, r0, r1
        mov r2, vpm
        mul24 r3, r2, r2                # r3 = x * x
        mov r2, vpm
        mul24 r1, r2, r2
        add r3, r3, r1
        mov r2, vpm
        mul24 r1, r2, r2
        add r3, r3, r1
        mov r2, vpm
        mul24 r1, r2, r2
        add r3, r3, r1
        ldi r1, 0x1a20                  # generic write: horizontal 32-bit, row 32 (+ i)
        add vw_setup, ra0, r1
        mov vpm, r3                     # this QPU's 16 partial sums
        srel 0                          # tell QPU 0 they are there
        or.setf -, ra0, ra0             # Z set in every lane only on QPU 0
        brr.allnz done                  # the other QPUs are finished
        nop
        nop
        nop

        sacq 0                          # wait for all eight partial rows
        sacq 0
        sacq 0
        sacq 0
        sacq 0
        sacq 0
        sacq 0
        sacq 0
        ldi vr_setup, 0x00801a20        # read 8 vectors from row 32
        mov r0, vpm
        mov r1, vpm
        add r0, r0, r1
        mov r1, vpm
        add r0, r0, r1
        mov r1, vpm
        add r0, r0, r1
        mov r1, vpm
        add r0, r0, r1
        mov r1, vpm
        add r0, r0, r1
        mov r1, vpm
        add r0, r0, r1
        mov r1, vpm
        add r0, r0, r1
        nop                             # no rotation of an accumulator written just before
        nop ; mov r1, r0 >> 8               # full 16-lane rotation (both operands accumulators)
        add r0, r0, r1
        nop
        nop ; mov r1, r0 >> 4
        add r0, r0, r1
        nop
        nop ; mov r1, r0 >> 2
        add r0, r0, r1
        nop
        nop ; mov r1, r0 >> 1
        add r0, r0, r1                  # every lane holds the total
        ldi vw_setup, 0x1a28            # row 40
        mov vpm, r0
        mov -, mutex
        ldi vw_setup, 0x80905400        # VDW store: 1 row of 16 words from VPM row 40
        mov vw_addr, ra2
        mov -, vw_wait
        mov mutex_release, 1
done:   nop ; nop ; thrend
        nop
        nop
