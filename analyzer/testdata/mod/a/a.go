package a

const Lock = "SELECT * FROM leases WHERE worker_id = $1 FOR UPDATE"
