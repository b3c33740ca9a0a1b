package core

// Low is in layer 1.
func Low() int { return helper() + 1 }

func helper() int {
	high := 2 // a local named like a top-level of a higher layer is not a reference
	return high
}

type thing struct{ Mid int } // a field named like a higher-layer name is not a reference

func (t thing) value() int { return t.Mid }

func useHigh() int { return High() } // the upward reference
