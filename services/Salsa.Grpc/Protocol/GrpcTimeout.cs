using System.Globalization;

namespace Salsa.Grpc;

/// <summary>
/// The grpc-timeout header: 1 to 8 ASCII digits and a unit (H hours, M minutes, S seconds,
/// m milliseconds, u microseconds, n nanoseconds).
/// </summary>
internal static class GrpcTimeout
{
    private const long MaxValue = 99_999_999;

    /// <summary>Parses a header value; false for anything the spec does not allow.</summary>
    public static bool TryParse(ReadOnlySpan<char> value, out TimeSpan timeout)
    {
        timeout = default;
        if (value.Length is < 2 or > 9)
        {
            return false;
        }

        long amount = 0;
        foreach (var c in value[..^1])
        {
            if (c is < '0' or > '9')
            {
                return false;
            }

            amount = (amount * 10) + (c - '0');
        }

        long ticks;
        switch (value[^1])
        {
            case 'H': ticks = amount * TimeSpan.TicksPerHour; break;
            case 'M': ticks = amount * TimeSpan.TicksPerMinute; break;
            case 'S': ticks = amount * TimeSpan.TicksPerSecond; break;
            case 'm': ticks = amount * TimeSpan.TicksPerMillisecond; break;
            case 'u': ticks = amount * TimeSpan.TicksPerMicrosecond; break;
            case 'n': ticks = amount / TimeSpan.NanosecondsPerTick; break;
            default: return false;
        }

        timeout = TimeSpan.FromTicks(ticks);
        return true;
    }

    /// <summary>
    /// The shortest exact-or-longer encoding: milliseconds while they fit in 8 digits, then
    /// coarser units, rounding up so the server never sees a deadline earlier than the client's.
    /// </summary>
    public static string Format(TimeSpan timeout)
    {
        var ticks = Math.Max(timeout.Ticks, 1);
        ReadOnlySpan<(long TicksPerUnit, char Unit)> units =
        [
            (TimeSpan.TicksPerMillisecond, 'm'),
            (TimeSpan.TicksPerSecond, 'S'),
            (TimeSpan.TicksPerMinute, 'M'),
            (TimeSpan.TicksPerHour, 'H'),
        ];
        foreach (var (ticksPerUnit, unit) in units)
        {
            var amount = (ticks + ticksPerUnit - 1) / ticksPerUnit;
            if (amount <= MaxValue)
            {
                return string.Create(CultureInfo.InvariantCulture, $"{amount}{unit}");
            }
        }

        return "99999999H";
    }
}
