namespace Salsa.Gateway.Api;

/// <summary>The first event of a watch: what is watched.</summary>
public sealed record WatchReady(string Watching);
