namespace Salsa.Ccr.Tests;

/// <summary>Upper bounds so a broken runtime fails a test instead of hanging the run. Not timing assertions.</summary>
internal static class TestTimeouts
{
    public static readonly TimeSpan Hang = TimeSpan.FromSeconds(60);

    public static async Task<T> OrHang<T>(this Task<T> task) => await task.WaitAsync(Hang);

    public static async Task OrHang(this Task task) => await task.WaitAsync(Hang);

    public static async Task<T> OrHang<T>(this ValueTask<T> task) => await task.AsTask().WaitAsync(Hang);
}
