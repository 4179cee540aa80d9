namespace Salsa.Graphics.Charts;

/// <summary>
/// Counts the ink under each place the legend could go, so it can go where it hides nothing.
/// Lines count along their length, not only at their points.
/// </summary>
internal sealed class LegendObstacles(IReadOnlyList<(LegendPosition Position, double Left, double Top, double Right, double Bottom)> candidates)
{
    private readonly long[] _counts = new long[candidates.Count];

    public long CountAt(int candidate) => _counts[candidate];

    public void Add(Point p)
    {
        for (var i = 0; i < candidates.Count; i++)
        {
            var c = candidates[i];
            if (p.X >= c.Left && p.X <= c.Right && p.Y >= c.Top && p.Y <= c.Bottom)
            {
                _counts[i]++;
            }
        }
    }

    /// <summary>Samples each segment every few units, so a line crossing a corner counts there.</summary>
    public void AddPolyline(ReadOnlySpan<Point> points)
    {
        for (var i = 1; i < points.Length; i++)
        {
            var (a, b) = (points[i - 1], points[i]);
            var length = Math.Sqrt(((b.X - a.X) * (b.X - a.X)) + ((b.Y - a.Y) * (b.Y - a.Y)));
            if (!double.IsFinite(length))
            {
                continue;
            }

            var steps = (int)Math.Min(Math.Ceiling(length / 4), 1000);
            for (var s = 1; s < steps; s++)
            {
                var t = (double)s / steps;
                Add(new Point(a.X + ((b.X - a.X) * t), a.Y + ((b.Y - a.Y) * t)));
            }
        }
    }

    public void AddRectangle(double left, double top, double right, double bottom)
    {
        for (var i = 0; i < candidates.Count; i++)
        {
            var c = candidates[i];
            if (left < c.Right && right > c.Left && top < c.Bottom && bottom > c.Top)
            {
                // A bar hidden even in part is worse than a few points.
                _counts[i] += 100;
            }
        }
    }
}
