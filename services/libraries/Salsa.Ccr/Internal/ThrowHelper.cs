using System.Diagnostics.CodeAnalysis;

namespace Salsa.Ccr.Internal;

/// <summary>Cold-path throws kept out of hot methods so those stay small enough to inline.</summary>
internal static class ThrowHelper
{
    [DoesNotReturn]
    public static void ArgumentOutOfRange(string name, object? value, string message) =>
        throw new ArgumentOutOfRangeException(name, value, message);

    [DoesNotReturn]
    public static void InvalidOperation(string message) => throw new InvalidOperationException(message);

    [DoesNotReturn]
    public static void Disposed(string name) => throw new ObjectDisposedException(name);

    [DoesNotReturn]
    public static void Argument(string name, string message) => throw new ArgumentException(message, name);

    [DoesNotReturn]
    public static T Argument<T>(string name, string message) => throw new ArgumentException(message, name);

    [DoesNotReturn]
    public static void Throw(Exception exception) => throw exception;
}
