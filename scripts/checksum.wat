;; The checksum of bin/code-cache.js (compiled into it by scripts/checksum-wasm.mjs):
;; V8 does not check a code cache's content and crashes on a damaged one. In WebAssembly
;; it costs ~1 ms for a 1.3 MB cache; the same loop in JavaScript, still interpreted when
;; it runs, ~4 ms.
(module
  (memory (export "memory") 1)
  ;; The checksum of bytes [from, from + len) of memory (from and len multiples of 16):
  ;; FNV-1a style over 32-bit little-endian words in four lanes, then mixed.
  (func (export "checksum") (param $from i32) (param $len i32) (result i32)
    (local $i i32) (local $end i32) (local $a i32) (local $b i32) (local $c i32) (local $d i32)
    (local.set $a (i32.const 0x811c9dc5))
    (local.set $b (i32.const 1))
    (local.set $c (i32.const 2))
    (local.set $d (i32.const 3))
    (local.set $i (local.get $from))
    (local.set $end (i32.add (local.get $from) (local.get $len)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $a (i32.mul (i32.xor (local.get $a) (i32.load (local.get $i))) (i32.const 0x01000193)))
        (local.set $b (i32.mul (i32.xor (local.get $b) (i32.load offset=4 (local.get $i))) (i32.const 0x01000193)))
        (local.set $c (i32.mul (i32.xor (local.get $c) (i32.load offset=8 (local.get $i))) (i32.const 0x01000193)))
        (local.set $d (i32.mul (i32.xor (local.get $d) (i32.load offset=12 (local.get $i))) (i32.const 0x01000193)))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $next)))
    (i32.xor (i32.xor (local.get $a) (i32.mul (local.get $b) (i32.const 0x9e3779b1)))
             (i32.xor (i32.mul (local.get $c) (i32.const 0x85ebca6b)) (i32.mul (local.get $d) (i32.const 0xc2b2ae35))))))
