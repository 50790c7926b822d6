DROP TABLE executions;
