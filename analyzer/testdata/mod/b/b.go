package b

const Delete = "DELETE FROM leases WHERE id = $1"
