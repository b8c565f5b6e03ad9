package identities

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"

	"golang.org/x/oauth2"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
)

// githubUser is what GET /user says of the account.
type githubUser struct {
	ID    int64  `json:"id"`
	Login string `json:"login"`
	Name  string `json:"name"`
}

// githubEmail is one entry of GET /user/emails.
type githubEmail struct {
	Email    string `json:"email"`
	Primary  bool   `json:"primary"`
	Verified bool   `json:"verified"`
}

// githubIdentity reads who signed in from GitHub's API with the access
// token: the subject is the account's numeric id (a login can be renamed
// and reused; the id cannot), the email the primary address, verified or
// not as GitHub says — the same linking rules as an OpenID provider's
// email_verified then apply. Without a primary address, a verified one
// stands in. It returns the audit reason of a failure.
func (s *Service) githubIdentity(ctx context.Context, p *provider, tok *oauth2.Token) (Identity, string, error) {
	var u githubUser
	if err := s.githubGet(ctx, p, tok, "/user", &u); err != nil {
		return Identity{}, "github_user", err
	}
	if u.ID <= 0 {
		return Identity{}, "no_subject", errs.E(errs.Unauthorized, "GitHub did not name the account")
	}
	var emails []githubEmail
	if err := s.githubGet(ctx, p, tok, "/user/emails", &emails); err != nil {
		return Identity{}, "github_emails", err
	}
	var pick *githubEmail
	for i, e := range emails {
		if e.Primary {
			pick = &emails[i]
			break
		}
	}
	if pick == nil {
		for i, e := range emails {
			if e.Verified {
				pick = &emails[i]
				break
			}
		}
	}
	id := Identity{Provider: p.cfg.Name, Subject: strconv.FormatInt(u.ID, 10), Name: u.Name}
	if id.Name == "" {
		id.Name = u.Login
	}
	if pick != nil {
		id.Email, id.EmailVerified = store.NormalizeEmail(pick.Email), pick.Verified
	}
	return id, "", nil
}

// githubGet reads path of GitHub's API into out.
func (s *Service) githubGet(ctx context.Context, p *provider, tok *oauth2.Token, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.cfg.APIURL+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	resp, err := s.client().Do(req)
	if err != nil {
		return errs.Wrap(errs.Transient, err, "GitHub does not answer; try again later")
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return errs.Wrap(errs.Transient, err, "GitHub's answer was cut short")
	}
	if resp.StatusCode != http.StatusOK {
		return errs.Ef(errs.Unauthorized, "GitHub answered %d to %s", resp.StatusCode, path)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return errs.Wrap(errs.Unauthorized, err, "GitHub's answer to "+path+" is not what it should be")
	}
	return nil
}
