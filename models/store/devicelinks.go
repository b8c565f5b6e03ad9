package store

import (
	"context"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
)

// CreateDeviceLink inserts l, filling ID (when empty), CreatedAt and, when
// empty, Status = pending. A reused user code or device-code hash is
// errs.Conflict (callers retry with a fresh code).
func (s *Store) CreateDeviceLink(ctx context.Context, l *models.DeviceLink) error {
	if l.ID == "" {
		l.ID = models.NewID(models.PrefixDeviceLink)
	}
	if l.Status == "" {
		l.Status = models.DeviceLinkPending
	}
	if l.DeviceCodeHash == "" || l.UserCode == "" || l.ExpiresAt.IsZero() {
		return errs.E(errs.Invalid, "a device link needs a device code, a user code and an expiry")
	}
	l.CreatedAt = s.now()
	l.ExpiresAt = utc(l.ExpiresAt)
	l.LastPollAt = utcPtr(l.LastPollAt)
	return mapErr(s.db.WithContext(ctx).Create(l).Error, "device link")
}

// DeviceLinkByUserCode finds a link by the code the user types.
func (s *Store) DeviceLinkByUserCode(ctx context.Context, userCode string) (*models.DeviceLink, error) {
	return s.deviceLinkWhere(ctx, "user_code = ?", userCode)
}

// DeviceLinkByDeviceCodeHash finds a link by the hash of the agent's device
// code.
func (s *Store) DeviceLinkByDeviceCodeHash(ctx context.Context, hash string) (*models.DeviceLink, error) {
	return s.deviceLinkWhere(ctx, "device_code_hash = ?", hash)
}

// DeviceLinkByID finds a link by ID.
func (s *Store) DeviceLinkByID(ctx context.Context, id string) (*models.DeviceLink, error) {
	return s.deviceLinkWhere(ctx, "id = ?", id)
}

func (s *Store) deviceLinkWhere(ctx context.Context, cond string, arg any) (*models.DeviceLink, error) {
	var l models.DeviceLink
	if err := s.db.WithContext(ctx).Where(cond, arg).Take(&l).Error; err != nil {
		return nil, mapErr(err, "device link")
	}
	return &l, nil
}

// DeviceLinkUpdate is a status transition of a device link. Nil pointer
// fields are left unchanged.
type DeviceLinkUpdate struct {
	Status  string
	UserID  *string
	AgentID *string
}

// UpdateDeviceLinkStatus moves link id from status `from` to u.Status,
// setting the optional fields. The update is conditional on the current
// status, so two racing approvals (or an approval racing expiry) cannot
// both win: the loser gets errs.Conflict. A missing link is NotFound.
func (s *Store) UpdateDeviceLinkStatus(ctx context.Context, id, from string, u DeviceLinkUpdate) error {
	if u.Status == "" {
		return errs.E(errs.Invalid, "a device link update needs a status")
	}
	set := map[string]any{"status": u.Status}
	if u.UserID != nil {
		set["user_id"] = *u.UserID
	}
	if u.AgentID != nil {
		set["agent_id"] = *u.AgentID
	}
	res := s.db.WithContext(ctx).Model(&models.DeviceLink{}).
		Where("id = ? AND status = ?", id, from).Updates(set)
	if res.Error != nil {
		return mapErr(res.Error, "device link")
	}
	if res.RowsAffected == 1 {
		return nil
	}
	if _, err := s.DeviceLinkByID(ctx, id); err != nil {
		return err
	}
	return errs.E(errs.Conflict, "the device link is no longer "+from).WithCode(errs.CodeDeviceLinkState)
}

// TouchDeviceLinkPoll records a poll at now and returns the previous poll
// time (nil on the first poll), for slow_down enforcement.
func (s *Store) TouchDeviceLinkPoll(ctx context.Context, id string, now time.Time) (*time.Time, error) {
	var prev *time.Time
	err := s.Tx(ctx, func(tx *Store) error {
		l, err := tx.DeviceLinkByID(ctx, id)
		if err != nil {
			return err
		}
		prev = l.LastPollAt
		return mapErr(tx.db.WithContext(ctx).Model(&models.DeviceLink{}).Where("id = ?", id).
			Update("last_poll_at", utc(now)).Error, "device link")
	})
	if err != nil {
		return nil, err
	}
	if prev != nil {
		p := prev.UTC()
		prev = &p
	}
	return prev, nil
}

// ExpireDeviceLinks marks pending and approved-but-unissued links whose
// expiry is at or before now as expired, and returns how many changed.
func (s *Store) ExpireDeviceLinks(ctx context.Context, now time.Time) (int64, error) {
	res := s.db.WithContext(ctx).Model(&models.DeviceLink{}).
		Where("status IN ? AND expires_at <= ?", []string{models.DeviceLinkPending, models.DeviceLinkApproved}, utc(now)).
		Update("status", models.DeviceLinkExpired)
	if res.Error != nil {
		return 0, mapErr(res.Error, "device link")
	}
	return res.RowsAffected, nil
}
