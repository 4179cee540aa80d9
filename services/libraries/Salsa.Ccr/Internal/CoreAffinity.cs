using System.Runtime.InteropServices;

namespace Salsa.Ccr.Internal;

/// <summary>
/// Pins threads to cores (Linux <c>sched_setaffinity</c>). SPMD ranks that meet at a barrier every
/// few milliseconds lose whole steps when the scheduler stacks two of them on one core (a woken
/// thread is placed beside its waker, and load balancing takes milliseconds to undo it); one rank
/// per pinned core is what MPI does by default. Only the cores the process may use are chosen
/// (a container's cpuset, <c>taskset</c>), in their order.
/// </summary>
internal static partial class CoreAffinity
{
    private const int MaskWords = 16; // 1024 cores

    private static readonly Lazy<int[]> s_allowed = new(ReadAllowedCores);

    /// <summary>The cores this process may run on, ascending; empty where unknown.</summary>
    public static IReadOnlyList<int> AllowedCores => s_allowed.Value;

    /// <summary>Binds the calling thread to the <paramref name="slot"/>-th allowed core (mod their number); false where unsupported.</summary>
    public static unsafe bool PinCurrentThread(int slot)
    {
        var allowed = s_allowed.Value;
        if (allowed.Length == 0)
        {
            return false;
        }

        var core = allowed[(int)((uint)slot % (uint)allowed.Length)];
        var mask = stackalloc ulong[MaskWords];
        new Span<ulong>(mask, MaskWords).Clear();
        mask[core / 64] = 1UL << (core % 64);
        return SchedSetAffinity(0, MaskWords * sizeof(ulong), mask) == 0;
    }

    private static unsafe int[] ReadAllowedCores()
    {
        if (!OperatingSystem.IsLinux())
        {
            return [];
        }

        var mask = stackalloc ulong[MaskWords];
        if (SchedGetAffinity(0, MaskWords * sizeof(ulong), mask) != 0)
        {
            return [];
        }

        var cores = new List<int>();
        for (var core = 0; core < MaskWords * 64; core++)
        {
            if ((mask[core / 64] & (1UL << (core % 64))) != 0)
            {
                cores.Add(core);
            }
        }

        return [.. cores];
    }

    [LibraryImport("libc", EntryPoint = "sched_setaffinity", SetLastError = true)]
    private static unsafe partial int SchedSetAffinity(int pid, nint cpuSetSize, ulong* mask);

    [LibraryImport("libc", EntryPoint = "sched_getaffinity", SetLastError = true)]
    private static unsafe partial int SchedGetAffinity(int pid, nint cpuSetSize, ulong* mask);
}
