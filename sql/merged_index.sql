-- The indexes ntprof merge adds to a merged file once its tables are
-- filled, for look-ups by command. A merged file's indexes are checked
-- against these statements, whole (lib/check.c): any other is refused.
CREATE INDEX ntp_merged_host_cmd ON ntp_host_cmd (db, t);
CREATE INDEX ntp_merged_target_cmd ON ntp_target_cmd (db, t);
CREATE INDEX ntp_merged_joined ON ntp_joined (hdb, ht);
