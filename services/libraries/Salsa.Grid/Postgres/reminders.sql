-- Orleans reminders in PostgreSQL for the ADO.NET reminder service
-- (Microsoft.Orleans.Reminders.AdoNet). The provider's contract: the query keys, the @parameters
-- (ServiceId, GrainId, ReminderName, StartTime, Period in milliseconds, GrainHash, Version,
-- BeginHash, EndHash) and the columns it reads (GrainId, ReminderName, StartTime, Period,
-- Version). Grain hashes are unsigned 32-bit values stored as integer; a range of the hash ring
-- is (BeginHash, EndHash], wrapping past the end when the provider asks with ReadRangeRows2Key.
-- Safe to run again.

CREATE TABLE IF NOT EXISTS OrleansRemindersTable
(
    serviceid    varchar(150) NOT NULL,
    grainid      varchar(150) NOT NULL,
    remindername varchar(150) NOT NULL,
    starttime    timestamptz NOT NULL,
    period       bigint NOT NULL,
    grainhash    integer NOT NULL,
    version      integer NOT NULL,
    PRIMARY KEY (serviceid, grainid, remindername)
);

CREATE INDEX IF NOT EXISTS ix_orleansreminders_hash ON OrleansRemindersTable (serviceid, grainhash);

INSERT INTO OrleansQuery (QueryKey, QueryText) VALUES

-- Adds the reminder or replaces its schedule; returns its new version (the provider''s etag).
('UpsertReminderRowKey', '
INSERT INTO OrleansRemindersTable (serviceid, grainid, remindername, starttime, period, grainhash, version)
VALUES (@ServiceId::text, @GrainId::text, @ReminderName::text, @StartTime, @Period::bigint, @GrainHash::integer, 0)
ON CONFLICT (serviceid, grainid, remindername) DO UPDATE
    SET starttime = EXCLUDED.starttime, period = EXCLUDED.period, grainhash = EXCLUDED.grainhash,
        version = OrleansRemindersTable.version + 1
RETURNING version AS "Version";'),

('ReadReminderRowsKey', '
SELECT grainid AS "GrainId", remindername AS "ReminderName", starttime AS "StartTime", period AS "Period", version AS "Version"
FROM OrleansRemindersTable
WHERE serviceid = @ServiceId::text AND grainid = @GrainId::text;'),

('ReadReminderRowKey', '
SELECT grainid AS "GrainId", remindername AS "ReminderName", starttime AS "StartTime", period AS "Period", version AS "Version"
FROM OrleansRemindersTable
WHERE serviceid = @ServiceId::text AND grainid = @GrainId::text AND remindername = @ReminderName::text;'),

-- A range that does not wrap: (BeginHash, EndHash].
('ReadRangeRows1Key', '
SELECT grainid AS "GrainId", remindername AS "ReminderName", starttime AS "StartTime", period AS "Period", version AS "Version"
FROM OrleansRemindersTable
WHERE serviceid = @ServiceId::text AND grainhash > @BeginHash::integer AND grainhash <= @EndHash::integer;'),

-- A range that wraps: above BeginHash, or up to EndHash.
('ReadRangeRows2Key', '
SELECT grainid AS "GrainId", remindername AS "ReminderName", starttime AS "StartTime", period AS "Period", version AS "Version"
FROM OrleansRemindersTable
WHERE serviceid = @ServiceId::text AND (grainhash > @BeginHash::integer OR grainhash <= @EndHash::integer);'),

-- True (1) when the reminder at that version was removed.
('DeleteReminderRowKey', '
WITH deleted AS (
    DELETE FROM OrleansRemindersTable
    WHERE serviceid = @ServiceId::text AND grainid = @GrainId::text AND remindername = @ReminderName::text AND version = @Version::integer
    RETURNING 1)
SELECT count(*)::integer FROM deleted;'),

('DeleteReminderRowsKey', '
DELETE FROM OrleansRemindersTable WHERE serviceid = @ServiceId::text;')

ON CONFLICT (QueryKey) DO UPDATE SET QueryText = EXCLUDED.QueryText;
