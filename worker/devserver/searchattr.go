package devserver

import (
	"context"
	"errors"
	"sort"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/workflows"
)

// EnsureSearchAttributes registers every search attribute of
// workflows.SearchAttributes() in namespace, so `ats api` and `ats worker`
// work against an existing cluster. Attributes already registered with the
// same type are left alone; one registered with a different type is a
// Conflict the operator must resolve by hand (changing a type would break
// existing visibility data).
func EnsureSearchAttributes(ctx context.Context, c client.Client, namespace string) error {
	return ensureSearchAttributes(ctx, c, namespace, workflows.SearchAttributes())
}

func ensureSearchAttributes(ctx context.Context, c client.Client, namespace string, keys []temporal.SearchAttributeKey) error {
	if namespace == "" {
		namespace = "default"
	}
	op := c.OperatorService()
	existing, err := op.ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return errs.Wrap(errs.Transient, err, "cannot list Temporal search attributes")
	}
	missing := map[string]enumspb.IndexedValueType{}
	var conflicts []string
	for _, k := range keys {
		have, ok := existing.GetCustomAttributes()[k.GetName()]
		if !ok {
			have, ok = existing.GetSystemAttributes()[k.GetName()]
		}
		switch {
		case !ok:
			missing[k.GetName()] = k.GetValueType()
		case have != k.GetValueType():
			conflicts = append(conflicts, k.GetName()+" is "+have.String()+", want "+k.GetValueType().String())
		}
	}
	if len(conflicts) > 0 {
		sort.Strings(conflicts)
		return errs.Ef(errs.Conflict, "search attributes registered with another type: %v", conflicts)
	}
	if len(missing) == 0 {
		return nil
	}
	_, err = op.AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace:        namespace,
		SearchAttributes: missing,
	})
	var exists *serviceerror.AlreadyExists
	if err != nil && !errors.As(err, &exists) { // a concurrent process registered them first
		return errs.Wrap(errs.Transient, err, "cannot register Temporal search attributes")
	}
	return nil
}
