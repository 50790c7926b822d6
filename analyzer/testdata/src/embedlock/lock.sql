SELECT v FROM t WHERE id = $1 FOR UPDATE; -- want `DSQL005 lock-without-retry: SELECT \.\.\. FOR UPDATE runs in the transaction begun at embedlock.go:21, which nothing retries`
