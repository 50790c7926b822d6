ALTER TABLE executions RENAME TO workflow_executions;
