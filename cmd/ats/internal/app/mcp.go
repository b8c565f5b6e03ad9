package app

import (
	"os"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	mcpapi "github.com/agent-trading/ats/api/mcp"
)

const (
	flagAPIURL = "api-url"
	envAPIKey  = "ATS_API_KEY"
)

// mcpCommand is `ats mcp`: the agent API's MCP tools on stdio, for local AI
// clients that start their servers as processes. It proxies to the
// service's HTTP MCP endpoint ({api-url}/mcp) with the agent's key and
// nothing else: no database, Temporal or master key, so it runs on the
// agent's machine and every rule of the service still applies.
func mcpCommand() *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "an MCP server on stdio exposing the agent API to a local AI client (key in " + envAPIKey + ")",
		Description: "Proxies every tool to the service's MCP endpoint {api-url}/mcp, authenticated with the agent's\n" +
			"ll_ key from " + envAPIKey + ". Standard input and output carry the protocol; diagnostics go to standard error.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: flagAPIURL, EnvVars: []string{"ATS_API_URL"}, Required: true,
				Usage: "the service's {base_url}, e.g. http://127.0.0.1:8080"},
		},
		Action: func(c *cli.Context) error {
			key := os.Getenv(envAPIKey)
			if key == "" {
				return cli.Exit("ats mcp: set "+envAPIKey+" to the agent's ll_ API key", 2)
			}
			return mcpapi.Proxy(c.Context, mcpapi.ProxyConfig{APIURL: c.String(flagAPIURL), Key: key, Version: version},
				&sdk.StdioTransport{})
		},
	}
}
