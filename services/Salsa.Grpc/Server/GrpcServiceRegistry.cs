using Google.Protobuf.Reflection;

namespace Salsa.Grpc;

/// <summary>The services mapped on this host, for reflection and health; one per application.</summary>
internal sealed class GrpcServiceRegistry
{
    // Design: written while endpoints are mapped (startup, one thread in practice, but locked so a
    // host mapping from several threads stays correct); read by reflection and health calls. Reads
    // take an immutable snapshot published under the same lock, so calls never see a list being
    // changed and never wait on one another.
    private readonly Lock _gate = new();
    private readonly HashSet<object> _buildersWithFallback = new(ReferenceEqualityComparer.Instance);
    private ServiceDescriptor[] _services = [];
    private DescriptorIndex? _index;

    public IReadOnlyList<ServiceDescriptor> Services => Volatile.Read(ref _services);

    /// <summary>Reflection's lookup tables over every mapped service's file and its dependencies.</summary>
    public DescriptorIndex Index
    {
        get
        {
            lock (_gate)
            {
                return _index ??= new DescriptorIndex(_services);
            }
        }
    }

    public void Add(ServiceDescriptor service)
    {
        lock (_gate)
        {
            if (Array.Exists(_services, s => s.FullName == service.FullName))
            {
                throw new InvalidOperationException($"gRPC service '{service.FullName}' is already mapped.");
            }

            Volatile.Write(ref _services, [.. _services, service]);
            _index = null;
        }
    }

    public bool IsMapped(string serviceName) => Array.Exists(Volatile.Read(ref _services), s => s.FullName == serviceName);

    /// <summary>True the first time for a route builder: the UNIMPLEMENTED fallback is mapped once per builder.</summary>
    public bool TryClaimFallback(object endpointRouteBuilder)
    {
        lock (_gate)
        {
            return _buildersWithFallback.Add(endpointRouteBuilder);
        }
    }
}
