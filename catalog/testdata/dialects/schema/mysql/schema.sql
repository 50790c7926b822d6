CREATE TABLE `shards` (`shard_id` INT NOT NULL, `range_id` BIGINT NOT NULL, PRIMARY KEY (`shard_id`)) ENGINE=InnoDB;
