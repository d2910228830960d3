;; LZ4 raw block decoder, the hot loop of decodeLz4Block (src/core/lz4.ts).
;; Hand-written; scripts/build-lz4-wasm.mjs assembles it (wabt) into
;; src/core/lz4-wasm.bytes.ts, and a test checks the two agree.
;;
;; Memory layout (one memory, exported):
;;   [0, 272)     swizzle masks for match offsets 1..15 (row k: i mod k), row 16 the identity
;;   [272, 288)   for offset k < 16: the smallest multiple of k that is >= 16
;;   [512, 512+n) the block (the caller copies it in)
;;   [out, ...)   the output, from `out` (after the block, chosen by the caller)
;;   the last SLACK (64) bytes of memory are never output: the 16-byte copies
;;   below may write up to 28 bytes past the end of a literal run or a match,
;;   into output space that later sequences overwrite (or that nobody reads),
;;   and read up to 17 bytes past the end of the block (memory after it).
;;
;; decode(n, out, limitEnd) -> the output length, or
;;   -1  the block is malformed or its output would pass limitEnd (the caller
;;       then runs the TypeScript decoder, which throws the exact error)
;;   -2  the output needs more memory than there is: the caller grows memory
;;       (the block stays in place) and calls again
;; The only promise is: a result >= 0 means the bytes [out, out+result) are the
;; decoded block, exactly what the TypeScript decoder returns. Any doubt is -1.
;;
;; The loop calls nothing (no memory.copy, no helper function): a call inside it
;; made V8 keep the locals on the stack around it, about 15 % slower on the
;; bench blocks; long runs are copied 16 bytes at a time instead.
(module
  (memory (export "memory") 1)
  (data (i32.const 0)
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00" ;; 0 (unused)
    "\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00" ;; 1
    "\00\01\00\01\00\01\00\01\00\01\00\01\00\01\00\01" ;; 2
    "\00\01\02\00\01\02\00\01\02\00\01\02\00\01\02\00" ;; 3
    "\00\01\02\03\00\01\02\03\00\01\02\03\00\01\02\03" ;; 4
    "\00\01\02\03\04\00\01\02\03\04\00\01\02\03\04\00" ;; 5
    "\00\01\02\03\04\05\00\01\02\03\04\05\00\01\02\03" ;; 6
    "\00\01\02\03\04\05\06\00\01\02\03\04\05\06\00\01" ;; 7
    "\00\01\02\03\04\05\06\07\00\01\02\03\04\05\06\07" ;; 8
    "\00\01\02\03\04\05\06\07\08\00\01\02\03\04\05\06" ;; 9
    "\00\01\02\03\04\05\06\07\08\09\00\01\02\03\04\05" ;; 10
    "\00\01\02\03\04\05\06\07\08\09\0a\00\01\02\03\04" ;; 11
    "\00\01\02\03\04\05\06\07\08\09\0a\0b\00\01\02\03" ;; 12
    "\00\01\02\03\04\05\06\07\08\09\0a\0b\0c\00\01\02" ;; 13
    "\00\01\02\03\04\05\06\07\08\09\0a\0b\0c\0d\00\01" ;; 14
    "\00\01\02\03\04\05\06\07\08\09\0a\0b\0c\0d\0e\00" ;; 15
    "\00\01\02\03\04\05\06\07\08\09\0a\0b\0c\0d\0e\0f" ;; 16 and more: identity
    "\00\10\10\12\10\14\12\15\10\12\14\16\18\1a\1c\1e") ;; 272: k * ceil(16 / k)

  ;; min(limitEnd, memory end - SLACK): how far the output may go without growing
  (func $hardEnd (param $limitEnd i32) (result i32)
    (local $memEnd i32)
    (local.set $memEnd (i32.sub (i32.shl (memory.size) (i32.const 16)) (i32.const 64)))
    (select (local.get $limitEnd) (local.get $memEnd)
      (i32.lt_u (local.get $limitEnd) (local.get $memEnd))))

  (func (export "decode") (param $n i32) (param $out i32) (param $limitEnd i32) (result i32)
    (local $ip i32) (local $end i32) (local $op i32) (local $hard i32)
    (local $token i32) (local $lit i32) (local $len i32) (local $b i32)
    (local $off i32) (local $from i32) (local $stop i32)
    (local.set $ip (i32.const 512))
    (local.set $end (i32.add (i32.const 512) (local.get $n)))
    (local.set $op (local.get $out))
    (local.set $hard (call $hardEnd (local.get $limitEnd)))
    (block $fail
     (block $room
      (block $done
        (loop $seq
          ;; token (a block ends with a literals-only sequence, never after a match)
          (br_if $fail (i32.ge_u (local.get $ip) (local.get $end)))
          (local.set $token (i32.load8_u (local.get $ip)))
          (local.set $ip (i32.add (local.get $ip) (i32.const 1)))
          (local.set $lit (i32.shr_u (local.get $token) (i32.const 4)))
          ;; literals. Copies are 16 bytes at a time and may go past the run:
          ;; bytes written past it land in output not yet written, bytes read
          ;; past the block land in memory after it.
          (if (i32.ne (local.get $lit) (i32.const 15))
            (then
              ;; 0..14 literals: one copy
              (br_if $fail (i32.gt_u (local.get $lit) (i32.sub (local.get $end) (local.get $ip))))
              (local.set $stop (i32.add (local.get $op) (local.get $lit)))
              (br_if $room (i32.gt_u (local.get $stop) (local.get $hard)))
              (v128.store (local.get $op) (v128.load (local.get $ip))))
            (else
              ;; 15 or more: the length goes on in bytes while they are 255
              (loop $more
                (br_if $fail (i32.ge_u (local.get $ip) (local.get $end)))
                (local.set $b (i32.load8_u (local.get $ip)))
                (local.set $ip (i32.add (local.get $ip) (i32.const 1)))
                (local.set $lit (i32.add (local.get $lit) (local.get $b)))
                (br_if $more (i32.eq (local.get $b) (i32.const 255))))
              (br_if $fail (i32.gt_u (local.get $lit) (i32.sub (local.get $end) (local.get $ip))))
              (local.set $stop (i32.add (local.get $op) (local.get $lit)))
              (br_if $room (i32.gt_u (local.get $stop) (local.get $hard)))
              ;; up to 32 without a test, longer runs 16 at a time or memory.copy
              (v128.store (local.get $op) (v128.load (local.get $ip)))
              (v128.store offset=16 (local.get $op) (v128.load offset=16 (local.get $ip)))
              (if (i32.gt_u (local.get $lit) (i32.const 32))
                (then
                  (local.set $from (i32.add (local.get $ip) (i32.const 32)))
                  (local.set $op (i32.add (local.get $op) (i32.const 32)))
                  (loop $lc
                    (v128.store (local.get $op) (v128.load (local.get $from)))
                    (local.set $op (i32.add (local.get $op) (i32.const 16)))
                    (local.set $from (i32.add (local.get $from) (i32.const 16)))
                    (br_if $lc (i32.lt_u (local.get $op) (local.get $stop))))))))
          (local.set $op (local.get $stop))
          (local.set $ip (i32.add (local.get $ip) (local.get $lit)))
          (br_if $done (i32.eq (local.get $ip) (local.get $end)))
          ;; match offset: 2 bytes, little-endian, in 1..(output so far)
          (br_if $fail (i32.lt_u (i32.sub (local.get $end) (local.get $ip)) (i32.const 2)))
          (local.set $off (i32.load16_u (local.get $ip)))
          ;; offset 0 or past the output so far (off - 1 wraps for 0)
          (br_if $fail (i32.ge_u (i32.sub (local.get $off) (i32.const 1)) (i32.sub (local.get $op) (local.get $out))))
          (local.set $ip (i32.add (local.get $ip) (i32.const 2)))
          (local.set $from (i32.sub (local.get $op) (local.get $off)))
          (local.set $len (i32.and (local.get $token) (i32.const 15)))
          (if (i32.ne (local.get $len) (i32.const 15))
            (then
              ;; 4..18 bytes: two copies of 16 without a test, for every offset
              (local.set $stop (i32.add (i32.add (local.get $op) (local.get $len)) (i32.const 4)))
              (br_if $room (i32.gt_u (local.get $stop) (local.get $hard)))
              (if (i32.ge_u (local.get $off) (i32.const 16))
                (then
                  (v128.store (local.get $op) (v128.load (local.get $from)))
                  (v128.store offset=16 (local.get $op) (v128.load offset=16 (local.get $from))))
                (else
                  (v128.store (local.get $op)
                    (i8x16.swizzle (v128.load (local.get $from)) (v128.load (i32.shl (local.get $off) (i32.const 4)))))
                  (v128.store offset=16 (local.get $op)
                    (v128.load offset=16 (i32.sub (local.get $op) (i32.load8_u offset=272 (local.get $off))))))))
            (else
              ;; 19 or more: the length goes on in bytes while they are 255
              (local.set $len (i32.const 19))
              (loop $more
                (br_if $fail (i32.ge_u (local.get $ip) (local.get $end)))
                (local.set $b (i32.load8_u (local.get $ip)))
                (local.set $ip (i32.add (local.get $ip) (i32.const 1)))
                (local.set $len (i32.add (local.get $len) (local.get $b)))
                (br_if $more (i32.eq (local.get $b) (i32.const 255))))
              (local.set $stop (i32.add (local.get $op) (local.get $len)))
              (br_if $room (i32.gt_u (local.get $stop) (local.get $hard)))
;; the first 16 as in the short case, then 16 at a time, in order,
              ;; from `step` back: each load reads bytes already written
              (v128.store (local.get $op)
                (i8x16.swizzle (v128.load (local.get $from))
                  (v128.load (i32.shl
                    (select (local.get $off) (i32.const 16) (i32.lt_u (local.get $off) (i32.const 16)))
                    (i32.const 4)))))
              (local.set $from (i32.sub (i32.add (local.get $op) (i32.const 16))
                (select
                  (i32.load8_u offset=272 (select (local.get $off) (i32.const 0) (i32.lt_u (local.get $off) (i32.const 16))))
                  (local.get $off)
                  (i32.lt_u (local.get $off) (i32.const 16)))))
              (local.set $op (i32.add (local.get $op) (i32.const 16)))
              (loop $mc
                (v128.store (local.get $op) (v128.load (local.get $from)))
                (local.set $op (i32.add (local.get $op) (i32.const 16)))
                (local.set $from (i32.add (local.get $from) (i32.const 16)))
                (br_if $mc (i32.lt_u (local.get $op) (local.get $stop))))))
          (local.set $op (local.get $stop))
          (br $seq)))
      (return (i32.sub (local.get $op) (local.get $out))))
     ;; the output needs more memory, unless it passes the limit
     (br_if $fail (i32.gt_u (local.get $stop) (local.get $limitEnd)))
     (return (i32.const -2)))
    (i32.const -1)))
