func.func @f(%a: i32, %b: i32) -> i32 {
  %0 = "x.add"(%a, %b) : (i32, i32) -> i32 loc("src.py":3:4)
  %1:2 = "x.two"(%0) : (i32) -> (i32, i32)
  "x.use"(%1#1, %0) : (i32, i32) -> ()
  "x.none"() ({
    ^bb0(%c: i32):
      %n = "x.inner"(%c) : (i32) -> i32
      "x.use"(%c, %n) : (i32, i32) -> ()
  }) : () -> ()
  %d = "x.dense"() {v = dense<[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]> : tensor<20xi32>, s = dense_resource<blob> : tensor<2xi32>, w = dense<[1, 2]> : tensor<2xi32>} : () -> i32
  %e = "x.ret"() : () -> i32 loc(fused["a.py":1:2, "b.py":3:4])
  return %0 : i32
}
{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000100000002000000",
      tiny: "0x0400000001"
    }
  }
#-}
