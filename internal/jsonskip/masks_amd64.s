#include "textflag.h"

// The bytes masks64 compares a block with, each repeated over 32 bytes.
DATA  quote<>+0(SB)/8, $0x2222222222222222
DATA  quote<>+8(SB)/8, $0x2222222222222222
DATA  quote<>+16(SB)/8, $0x2222222222222222
DATA  quote<>+24(SB)/8, $0x2222222222222222
GLOBL quote<>(SB), RODATA|NOPTR, $32

DATA  backslash<>+0(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA  backslash<>+8(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA  backslash<>+16(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA  backslash<>+24(SB)/8, $0x5c5c5c5c5c5c5c5c
GLOBL backslash<>(SB), RODATA|NOPTR, $32

DATA  slash<>+0(SB)/8, $0x2f2f2f2f2f2f2f2f
DATA  slash<>+8(SB)/8, $0x2f2f2f2f2f2f2f2f
DATA  slash<>+16(SB)/8, $0x2f2f2f2f2f2f2f2f
DATA  slash<>+24(SB)/8, $0x2f2f2f2f2f2f2f2f
GLOBL slash<>(SB), RODATA|NOPTR, $32

// An opening bracket, { or [, or'ed with 0x20 is {: likewise } and ].
DATA  lower<>+0(SB)/8, $0x2020202020202020
DATA  lower<>+8(SB)/8, $0x2020202020202020
DATA  lower<>+16(SB)/8, $0x2020202020202020
DATA  lower<>+24(SB)/8, $0x2020202020202020
GLOBL lower<>(SB), RODATA|NOPTR, $32

DATA  open<>+0(SB)/8, $0x7b7b7b7b7b7b7b7b
DATA  open<>+8(SB)/8, $0x7b7b7b7b7b7b7b7b
DATA  open<>+16(SB)/8, $0x7b7b7b7b7b7b7b7b
DATA  open<>+24(SB)/8, $0x7b7b7b7b7b7b7b7b
GLOBL open<>(SB), RODATA|NOPTR, $32

DATA  close<>+0(SB)/8, $0x7d7d7d7d7d7d7d7d
DATA  close<>+8(SB)/8, $0x7d7d7d7d7d7d7d7d
DATA  close<>+16(SB)/8, $0x7d7d7d7d7d7d7d7d
DATA  close<>+24(SB)/8, $0x7d7d7d7d7d7d7d7d
GLOBL close<>(SB), RODATA|NOPTR, $32

// func textMasksAVX2(b *[64]byte) (quotes, backslashes, slashes uint64)
TEXT ·textMasksAVX2(SB), NOSPLIT, $0-32
	MOVQ     b+0(FP), SI
	VMOVDQU  (SI), Y0
	VMOVDQU  32(SI), Y1
	VPCMPEQB quote<>(SB), Y0, Y2
	VPCMPEQB quote<>(SB), Y1, Y3
	VPMOVMSKB Y2, AX
	VPMOVMSKB Y3, BX
	SHLQ     $32, BX
	ORQ      BX, AX
	MOVQ     AX, quotes+8(FP)
	VPCMPEQB backslash<>(SB), Y0, Y2
	VPCMPEQB backslash<>(SB), Y1, Y3
	VPMOVMSKB Y2, AX
	VPMOVMSKB Y3, BX
	SHLQ     $32, BX
	ORQ      BX, AX
	MOVQ     AX, backslashes+16(FP)
	VPCMPEQB slash<>(SB), Y0, Y2
	VPCMPEQB slash<>(SB), Y1, Y3
	VPMOVMSKB Y2, AX
	VPMOVMSKB Y3, BX
	SHLQ     $32, BX
	ORQ      BX, AX
	MOVQ     AX, slashes+24(FP)
	VZEROUPPER
	RET

// func containerMasksAVX2(b *[64]byte) (quotes, backslashes, opens, closes uint64)
TEXT ·containerMasksAVX2(SB), NOSPLIT, $0-40
	MOVQ     b+0(FP), SI
	VMOVDQU  (SI), Y0
	VMOVDQU  32(SI), Y1
	VPCMPEQB quote<>(SB), Y0, Y2
	VPCMPEQB quote<>(SB), Y1, Y3
	VPMOVMSKB Y2, AX
	VPMOVMSKB Y3, BX
	SHLQ     $32, BX
	ORQ      BX, AX
	MOVQ     AX, quotes+8(FP)
	VPCMPEQB backslash<>(SB), Y0, Y2
	VPCMPEQB backslash<>(SB), Y1, Y3
	VPMOVMSKB Y2, AX
	VPMOVMSKB Y3, BX
	SHLQ     $32, BX
	ORQ      BX, AX
	MOVQ     AX, backslashes+16(FP)
	VPOR     lower<>(SB), Y0, Y0
	VPOR     lower<>(SB), Y1, Y1
	VPCMPEQB open<>(SB), Y0, Y2
	VPCMPEQB open<>(SB), Y1, Y3
	VPMOVMSKB Y2, AX
	VPMOVMSKB Y3, BX
	SHLQ     $32, BX
	ORQ      BX, AX
	MOVQ     AX, opens+24(FP)
	VPCMPEQB close<>(SB), Y0, Y2
	VPCMPEQB close<>(SB), Y1, Y3
	VPMOVMSKB Y2, AX
	VPMOVMSKB Y3, BX
	SHLQ     $32, BX
	ORQ      BX, AX
	MOVQ     AX, closes+32(FP)
	VZEROUPPER
	RET
