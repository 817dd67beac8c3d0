// Package fill gives a field its default when the request left it unset. The defaulting
// functions under servers/core/defaults are mostly lists of these calls, one per field, so that
// each reads as the table of defaults it is.
package fill

// Zero sets *field to value when *field holds its type's zero value ("", 0, false).
func Zero[T comparable](field *T, value T) {
	var zero T
	if *field == zero {
		*field = value
	}
}

// Nil points *field at its own copy of value when *field is nil.
func Nil[T any](field **T, value T) {
	if *field == nil {
		*field = &value
	}
}
