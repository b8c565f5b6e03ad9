package orders

import "github.com/agent-trading/ats/models"

// View is the service's view of a stored order, for read models that list
// orders themselves (the dashboard's views across agents).
func View(o *models.Order) Order { return view(o) }
