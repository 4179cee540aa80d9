-- Orleans cluster membership in PostgreSQL: the tables and the stored queries that Orleans'
-- ADO.NET clustering provider (Microsoft.Orleans.Clustering.AdoNet) reads from OrleansQuery at
-- start and runs by key. The provider's contract: the query keys, the @parameters it binds
-- (DeploymentId, Address, Port, Generation, SiloName, HostName, Status, ProxyPort, StartTime,
-- IAmAliveTime, SuspectTimes, Version) and the column names it reads back. Everything else —
-- table layout, how each query keeps the table version consistent — is this project's.
-- Safe to run again: tables are created if missing, queries replaced.

CREATE TABLE IF NOT EXISTS OrleansQuery
(
    QueryKey  varchar(64) PRIMARY KEY,
    QueryText text NOT NULL
);

-- One row per cluster (deployment): the membership table's version, bumped by every change so
-- that two silos writing at once cannot both succeed on the same version.
CREATE TABLE IF NOT EXISTS orleans_membership_version
(
    deploymentid varchar(150) PRIMARY KEY,
    timestamp    timestamptz NOT NULL DEFAULT now(),
    version      integer NOT NULL DEFAULT 0
);

-- One row per silo incarnation (address, port, generation).
CREATE TABLE IF NOT EXISTS orleans_membership
(
    deploymentid varchar(150) NOT NULL REFERENCES orleans_membership_version (deploymentid),
    address      varchar(45) NOT NULL,
    port         integer NOT NULL,
    generation   integer NOT NULL,
    siloname     varchar(150) NOT NULL,
    hostname     varchar(150) NOT NULL,
    status       integer NOT NULL,
    proxyport    integer NULL,
    suspecttimes varchar(8000) NULL,
    starttime    timestamptz NOT NULL,
    iamalivetime timestamptz NOT NULL,
    PRIMARY KEY (deploymentid, address, port, generation)
);

INSERT INTO OrleansQuery (QueryKey, QueryText) VALUES

-- 1 when this call created the cluster's version row, 0 when it existed.
('InsertMembershipVersionKey', '
WITH inserted AS (
    INSERT INTO orleans_membership_version (deploymentid) VALUES (@DeploymentId)
    ON CONFLICT (deploymentid) DO NOTHING
    RETURNING 1)
SELECT count(*)::integer FROM inserted;'),

-- 1 when the silo''s row was added and the version moved from @Version on; 0 (nothing written)
-- when the version was not @Version any more or the row existed. The version row is locked by
-- the UPDATE, so of two silos inserting on the same version one wins.
('InsertMembershipKey', '
WITH bumped AS (
    UPDATE orleans_membership_version SET version = version + 1, timestamp = now()
    WHERE deploymentid = @DeploymentId AND version = @Version
      AND NOT EXISTS (SELECT 1 FROM orleans_membership
                      WHERE deploymentid = @DeploymentId AND address = @Address AND port = @Port AND generation = @Generation)
    RETURNING deploymentid),
inserted AS (
    INSERT INTO orleans_membership (deploymentid, address, port, generation, siloname, hostname, status, proxyport, starttime, iamalivetime)
    SELECT deploymentid, @Address, @Port, @Generation, @SiloName, @HostName, @Status, @ProxyPort, @StartTime, @IAmAliveTime FROM bumped
    RETURNING 1)
SELECT count(*)::integer FROM inserted;'),

-- 1 when the row was changed and the version moved from @Version on; 0 (nothing written) otherwise.
('UpdateMembershipKey', '
WITH bumped AS (
    UPDATE orleans_membership_version SET version = version + 1, timestamp = now()
    WHERE deploymentid = @DeploymentId AND version = @Version
      AND EXISTS (SELECT 1 FROM orleans_membership
                  WHERE deploymentid = @DeploymentId AND address = @Address AND port = @Port AND generation = @Generation)
    RETURNING deploymentid),
updated AS (
    UPDATE orleans_membership m SET status = @Status, suspecttimes = @SuspectTimes, iamalivetime = @IAmAliveTime
    FROM bumped
    WHERE m.deploymentid = bumped.deploymentid AND m.address = @Address AND m.port = @Port AND m.generation = @Generation
    RETURNING 1)
SELECT count(*)::integer FROM updated;'),

-- The heartbeat: not versioned, never expected to fail.
('UpdateIAmAlivetimeKey', '
UPDATE orleans_membership SET iamalivetime = @IAmAliveTime
WHERE deploymentid = @DeploymentId AND address = @Address AND port = @Port AND generation = @Generation;'),

-- The version row, with the silo''s row when there is one (the provider reads the version from
-- the first row, and a member from each row that has a start time).
('MembershipReadRowKey', '
SELECT v.deploymentid AS "DeploymentId", m.address AS "Address", m.port AS "Port", m.generation AS "Generation",
       m.siloname AS "SiloName", m.hostname AS "HostName", m.status AS "Status", m.proxyport AS "ProxyPort",
       m.suspecttimes AS "SuspectTimes", m.starttime AS "StartTime", m.iamalivetime AS "IAmAliveTime", v.version AS "Version"
FROM orleans_membership_version v
LEFT JOIN orleans_membership m
       ON m.deploymentid = v.deploymentid AND m.address = @Address AND m.port = @Port AND m.generation = @Generation
WHERE v.deploymentid = @DeploymentId;'),

('MembershipReadAllKey', '
SELECT v.deploymentid AS "DeploymentId", m.address AS "Address", m.port AS "Port", m.generation AS "Generation",
       m.siloname AS "SiloName", m.hostname AS "HostName", m.status AS "Status", m.proxyport AS "ProxyPort",
       m.suspecttimes AS "SuspectTimes", m.starttime AS "StartTime", m.iamalivetime AS "IAmAliveTime", v.version AS "Version"
FROM orleans_membership_version v
LEFT JOIN orleans_membership m ON m.deploymentid = v.deploymentid
WHERE v.deploymentid = @DeploymentId;'),

-- Gateways clients may connect to: the active silos that accept clients.
('GatewaysQueryKey', '
SELECT address AS "Address", proxyport AS "ProxyPort", generation AS "Generation"
FROM orleans_membership
WHERE deploymentid = @DeploymentId AND status = @Status AND proxyport > 0;'),

('DeleteMembershipTableEntriesKey', '
DELETE FROM orleans_membership WHERE deploymentid = @DeploymentId;
DELETE FROM orleans_membership_version WHERE deploymentid = @DeploymentId;'),

-- Rows of silos that stopped being active and have not been heard from since @IAmAliveTime.
('CleanupDefunctSiloEntriesKey', '
DELETE FROM orleans_membership
WHERE deploymentid = @DeploymentId AND iamalivetime < @IAmAliveTime AND status <> 3;'),

-- One dead silo''s row, only if it is still as the provider read it.
('CleanupDefunctSiloEntryKey', '
DELETE FROM orleans_membership
WHERE deploymentid = @DeploymentId AND address = @Address AND port = @Port AND generation = @Generation
  AND status = 6 AND starttime = @StartTime AND iamalivetime = @IAmAliveTime;')

ON CONFLICT (QueryKey) DO UPDATE SET QueryText = EXCLUDED.QueryText;
