-- name: ReadOrder :one
SELECT status FROM orders
WHERE id = $1
FOR SHARE;
