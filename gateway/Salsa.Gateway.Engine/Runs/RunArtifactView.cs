namespace Salsa.Gateway.Runs;

/// <summary>
/// A file a run kept: the step's service job stored it and keeps it; the run refers to it by that
/// job (<see cref="Job"/>) and every download reads the service's one copy. Runs recorded before
/// artifacts stayed with their jobs have no job here: their copy is the run's own. <see cref="Sha256"/>
/// is the digest of its bytes (null for runs recorded before digests were kept).
/// </summary>
public sealed record RunArtifactView(string Name, string ContentType, long Size, string Step, StepJob? Job = null, string? Sha256 = null);
