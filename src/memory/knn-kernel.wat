;; The dot-product kernel behind exact vector search (src/memory/knn-cache.ts).
;; out[i] = dot(rows[i], q) for n rows of `stride` bytes laid out one after another;
;; stride is a multiple of 32 (rows are zero-padded to a multiple of 8 floats).
;; Two 4-lane accumulators per row keep both SIMD adders busy.
;; Compiled into knn-kernel.ts by `npm run build:kernel`; a test checks they match.
(module
  (memory (export "memory") 1)
  (func (export "dots") (param $rows i32) (param $q i32) (param $n i32) (param $stride i32) (param $out i32)
    (local $row i32) (local $col i32) (local $a v128) (local $b v128) (local $last i32)
    (local.set $last (i32.add (local.get $rows) (i32.mul (local.get $n) (local.get $stride))))
    (local.set $row (local.get $rows))
    (block $done
      (loop $each_row
        (br_if $done (i32.ge_u (local.get $row) (local.get $last)))
        (local.set $a (v128.const f32x4 0 0 0 0))
        (local.set $b (v128.const f32x4 0 0 0 0))
        (local.set $col (i32.const 0))
        (block $row_done
          (loop $each_col
            (br_if $row_done (i32.ge_u (local.get $col) (local.get $stride)))
            (local.set $a (f32x4.add (local.get $a)
              (f32x4.mul (v128.load (i32.add (local.get $row) (local.get $col)))
                         (v128.load (i32.add (local.get $q) (local.get $col))))))
            (local.set $b (f32x4.add (local.get $b)
              (f32x4.mul (v128.load offset=16 (i32.add (local.get $row) (local.get $col)))
                         (v128.load offset=16 (i32.add (local.get $q) (local.get $col))))))
            (local.set $col (i32.add (local.get $col) (i32.const 32)))
            (br $each_col)))
        (local.set $a (f32x4.add (local.get $a) (local.get $b)))
        (f32.store (local.get $out)
          (f32.add (f32.add (f32x4.extract_lane 0 (local.get $a)) (f32x4.extract_lane 1 (local.get $a)))
                   (f32.add (f32x4.extract_lane 2 (local.get $a)) (f32x4.extract_lane 3 (local.get $a)))))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $row (i32.add (local.get $row) (local.get $stride)))
        (br $each_row)))))
