namespace Salsa.Gateway.Api;

/// <summary>A service the gateway calls: where (embedded or remote), whether started, its health, and for admins its addresses.</summary>
public sealed record ServiceView(string Name, string Mode, bool Started, string Health, Uri? Grpc, Uri? Rest);
