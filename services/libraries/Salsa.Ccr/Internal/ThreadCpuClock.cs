using System.Runtime.InteropServices;

namespace Salsa.Ccr.Internal;

/// <summary>
/// The calling thread's CPU time in nanoseconds: <c>clock_gettime(CLOCK_THREAD_CPUTIME_ID)</c> on
/// Linux and macOS, <c>GetThreadTimes</c> on Windows (user + kernel). Zero where neither exists.
/// </summary>
internal static partial class ThreadCpuClock
{
    private const int LinuxThreadCpuClock = 3;
    private const int MacThreadCpuClock = 16;
    private static readonly nint s_currentThread = -2; // GetCurrentThread()'s pseudo-handle

    public static bool IsSupported { get; } = OperatingSystem.IsLinux() || OperatingSystem.IsMacOS() || OperatingSystem.IsWindows();

    public static long Now()
    {
        if (OperatingSystem.IsWindows())
        {
            return GetThreadTimes(s_currentThread, out _, out _, out var kernel, out var user) ? (kernel + user) * 100 : 0;
        }

        if (!IsSupported)
        {
            return 0;
        }

        return ClockGetTime(OperatingSystem.IsMacOS() ? MacThreadCpuClock : LinuxThreadCpuClock, out var time) == 0
            ? (time.Seconds * 1_000_000_000) + time.Nanoseconds
            : 0;
    }

    [StructLayout(LayoutKind.Sequential)]
    private struct TimeSpec
    {
        public long Seconds;
        public long Nanoseconds;
    }

    [LibraryImport("libc", EntryPoint = "clock_gettime")]
    private static partial int ClockGetTime(int clock, out TimeSpec time);

    [LibraryImport("kernel32", EntryPoint = "GetThreadTimes")]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static partial bool GetThreadTimes(nint thread, out long creation, out long exit, out long kernel, out long user);
}
