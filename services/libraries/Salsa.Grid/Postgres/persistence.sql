-- Orleans grain state in PostgreSQL for the ADO.NET grain storage provider
-- (Microsoft.Orleans.Persistence.AdoNet). The provider's contract: the query keys, the
-- @parameters (GrainIdHash, GrainIdN0, GrainIdN1, GrainTypeHash, GrainTypeString,
-- GrainIdExtensionString, ServiceId, GrainStateVersion, PayloadBinary) and the columns it reads
-- (PayloadBinary, Version; NewGrainStateVersion after a write or clear). A write or clear that
-- does not find the version the grain read returns that same version, which the provider reports
-- as a conflict. Safe to run again.

CREATE TABLE IF NOT EXISTS OrleansStorage
(
    serviceid              varchar(150) NOT NULL,
    graintypehash          integer NOT NULL,
    graintypestring        varchar(512) NOT NULL,
    grainidhash            integer NOT NULL,
    grainidn0              bigint NOT NULL,
    grainidn1              bigint NOT NULL,
    grainidextensionstring varchar(512) NULL,
    payloadbinary          bytea NULL,
    modifiedon             timestamptz NOT NULL,
    version                integer NULL
);

-- One row per grain: concurrent first writes of the same grain cannot both insert.
CREATE UNIQUE INDEX IF NOT EXISTS ux_orleansstorage_grain ON OrleansStorage
    (serviceid, graintypehash, grainidhash, grainidn0, grainidn1, graintypestring, (coalesce(grainidextensionstring, '')));

INSERT INTO OrleansQuery (QueryKey, QueryText) VALUES

('ReadFromStorageKey', '
SELECT payloadbinary AS "PayloadBinary", version AS "Version"
FROM OrleansStorage
WHERE serviceid = @ServiceId::text AND graintypehash = @GrainTypeHash::integer AND grainidhash = @GrainIdHash::integer
  AND grainidn0 = @GrainIdN0::bigint AND grainidn1 = @GrainIdN1::bigint AND graintypestring = @GrainTypeString::text
  AND coalesce(grainidextensionstring, '''') = coalesce(@GrainIdExtensionString::text, '''');'),

-- With a version: an update that succeeds only on that version. Without one (the grain never
-- read a stored state): an insert that succeeds only if no row exists yet.
('WriteToStorageKey', '
WITH updated AS (
    UPDATE OrleansStorage SET payloadbinary = @PayloadBinary::bytea, modifiedon = now(), version = version + 1
    WHERE @GrainStateVersion::integer IS NOT NULL AND version = @GrainStateVersion::integer
      AND serviceid = @ServiceId::text AND graintypehash = @GrainTypeHash::integer AND grainidhash = @GrainIdHash::integer
      AND grainidn0 = @GrainIdN0::bigint AND grainidn1 = @GrainIdN1::bigint AND graintypestring = @GrainTypeString::text
      AND coalesce(grainidextensionstring, '''') = coalesce(@GrainIdExtensionString::text, '''')
    RETURNING version),
inserted AS (
    INSERT INTO OrleansStorage (serviceid, graintypehash, graintypestring, grainidhash, grainidn0, grainidn1, grainidextensionstring, payloadbinary, modifiedon, version)
    SELECT @ServiceId::text, @GrainTypeHash::integer, @GrainTypeString::text, @GrainIdHash::integer, @GrainIdN0::bigint, @GrainIdN1::bigint,
           @GrainIdExtensionString::text, @PayloadBinary::bytea, now(), 1
    WHERE @GrainStateVersion::integer IS NULL
    ON CONFLICT (serviceid, graintypehash, grainidhash, grainidn0, grainidn1, graintypestring, (coalesce(grainidextensionstring, ''''))) DO NOTHING
    RETURNING version)
SELECT coalesce((SELECT version FROM updated), (SELECT version FROM inserted), @GrainStateVersion::integer) AS "NewGrainStateVersion";'),

-- Clearing keeps the row (and its version history) with no payload.
('ClearStorageKey', '
UPDATE OrleansStorage SET payloadbinary = NULL, modifiedon = now(), version = version + 1
WHERE version = @GrainStateVersion::integer
  AND serviceid = @ServiceId::text AND graintypehash = @GrainTypeHash::integer AND grainidhash = @GrainIdHash::integer
  AND grainidn0 = @GrainIdN0::bigint AND grainidn1 = @GrainIdN1::bigint AND graintypestring = @GrainTypeString::text
  AND coalesce(grainidextensionstring, '''') = coalesce(@GrainIdExtensionString::text, '''')
RETURNING version AS "NewGrainStateVersion";'),

-- Clearing that removes the row (the provider''s DeleteStateOnClear).
('DeleteStorageKey', '
DELETE FROM OrleansStorage
WHERE version = @GrainStateVersion::integer
  AND serviceid = @ServiceId::text AND graintypehash = @GrainTypeHash::integer AND grainidhash = @GrainIdHash::integer
  AND grainidn0 = @GrainIdN0::bigint AND grainidn1 = @GrainIdN1::bigint AND graintypestring = @GrainTypeString::text
  AND coalesce(grainidextensionstring, '''') = coalesce(@GrainIdExtensionString::text, '''')
RETURNING NULL::integer AS "NewGrainStateVersion";')

ON CONFLICT (QueryKey) DO UPDATE SET QueryText = EXCLUDED.QueryText;
