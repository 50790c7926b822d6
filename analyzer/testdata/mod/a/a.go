package a

const Delete = "DELETE FROM leases WHERE id = $1"
