# labels, guards, flow tests and a loop
start:
        SSY join
  @P0   BRA CC.NEU, skip
        ISETP.GE.AND P1, PT, R4, c[0x0][0x170], PT ;
  @!P1  KIL ;
skip:   SYNC
join:   DEPBAR.LE SB5, 0x1 ;
        BAR.SYNC 0x0 ;
        LDC.64 R4, c[0x2][R4+0x10] ;
        LDL R0, [R1-0x4] ;
        STL [R1+0x8], R0 ;
        .inst 0xe260000000000000 ; /* CAL: kept as a raw word */
        EXIT
