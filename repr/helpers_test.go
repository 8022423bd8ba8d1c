package repr

import "math"

func inf() float64 { return math.Inf(1) }
func nan() float64 { return math.NaN() }
