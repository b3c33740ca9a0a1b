package core

// High uses the layers below.
func High() int { return Mid() }

func high() int { return 0 }
