// Package constfilter links a user to an identity once (a
// compare-and-swap of linked_id where it is still empty). A bulk reset of
// the links of one provider compares login_type with a constant: a filter
// over many rows, not the key of a row the caller read, so it bypasses no
// fence. Writing linked_id by the row's key without comparing it does.
package constfilter

const (
	linkOnce = `UPDATE user_links SET linked_id = $1 WHERE user_id = $2 AND login_type = $3 AND linked_id = ''`

	unlinkMismatched = `UPDATE user_links SET linked_id = ''
FROM users
WHERE user_links.user_id = users.id
  AND user_links.login_type = 'oidc'
  AND user_links.linked_id != ''
  AND NOT starts_with(user_links.linked_id, $1)
  AND users.deleted = false`

	relink = `UPDATE user_links SET linked_id = $1 WHERE user_id = $2 AND login_type = $3` // want `DSQL003 unfenced-write: linked_id is compare-and-set`
)
