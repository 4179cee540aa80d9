namespace Salsa.Store;

/// <summary>An artifact as a job's list names it: without its data, with its size and its SHA-256 (null for one stored before digests were kept).</summary>
public sealed record ArtifactEntry(string Name, string ContentType, long Size, string? Sha256);
