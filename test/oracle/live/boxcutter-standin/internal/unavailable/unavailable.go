// Package unavailable holds the panic every part of the boxcutter stand-in that only the
// Boxcutter runtime uses ends in.
package unavailable

// Message is what the stand-in says when anything of the Boxcutter runtime is used.
const Message = "boxcutter is not available: the harness runs the Helm applier"

// Panic fails loudly: the Boxcutter runtime was used, which the harness never enables.
func Panic(what string) {
	panic(Message + " (" + what + " called)")
}
