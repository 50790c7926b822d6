-- name: NextJob :one
SELECT id FROM jobs WHERE state = 'ready' ORDER BY id LIMIT 1 FOR SHARE;
