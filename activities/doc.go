// Package activities holds the Temporal activities of the service: the
// steps the workflows order, each a call into a domain service in models.
// Their errors reach Temporal through models/errs/temporalerr, the one
// place the error taxonomy becomes retryable or non-retryable failures.
package activities
