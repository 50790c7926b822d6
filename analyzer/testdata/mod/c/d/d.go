package d

const Delete = "DELETE FROM leases WHERE id = $1"
