package strategies

// RegisterForTest adds a strategy type to the registry for a test (a type
// defined in a _test.go file) and returns what removes it.
var RegisterForTest = register
