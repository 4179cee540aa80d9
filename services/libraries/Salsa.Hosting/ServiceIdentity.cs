namespace Salsa.Hosting;

/// <summary>The service this process (or embedded host) is: its name names its job records, its telemetry and its root description.</summary>
public sealed record ServiceIdentity(string Name);
