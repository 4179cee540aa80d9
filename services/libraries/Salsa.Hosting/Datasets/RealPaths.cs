namespace Salsa.Hosting.Datasets;

/// <summary>
/// Where a path really leads: every symbolic link along it followed, as the operating system's
/// <c>realpath</c> does, so a check of the result against a folder cannot be escaped by a link to a
/// file or to a folder elsewhere.
/// </summary>
internal static class RealPaths
{
    // As Linux's own limit on links followed in one lookup (ELOOP).
    private const int MaxLinks = 40;

    /// <summary>The real, absolute path of an existing file or folder; null when it does not exist, or its links loop.</summary>
    public static string? Resolve(string path)
    {
        string full;
        try
        {
            full = Path.GetFullPath(path);
        }
        catch (Exception exception) when (exception is ArgumentException or NotSupportedException or PathTooLongException)
        {
            return null;
        }

        var root = Path.GetPathRoot(full)!;
        var pending = new Stack<string>(full[root.Length..].Split(Path.DirectorySeparatorChar, StringSplitOptions.RemoveEmptyEntries).Reverse());
        var current = root;
        var links = 0;
        while (pending.TryPop(out var part))
        {
            var next = Path.Combine(current, part);
            FileSystemInfo entry = Directory.Exists(next) ? new DirectoryInfo(next) : new FileInfo(next);
            if (!entry.Exists)
            {
                return null;
            }

            if (entry.LinkTarget is { } target)
            {
                if (++links > MaxLinks)
                {
                    return null;
                }

                // The link's target replaces it; what followed it is looked up from there.
                var resolved = Path.GetFullPath(target, current);
                foreach (var step in resolved[Path.GetPathRoot(resolved)!.Length..].Split(Path.DirectorySeparatorChar, StringSplitOptions.RemoveEmptyEntries).Reverse())
                {
                    pending.Push(step);
                }

                current = Path.GetPathRoot(resolved)!;
                continue;
            }

            current = next;
        }

        return current;
    }

    /// <summary>The path of the file an open handle reads, where the system says (Linux: <c>/proc/self/fd</c>); else null.</summary>
    public static string? OfHandle(FileStream stream)
    {
        if (!OperatingSystem.IsLinux())
        {
            return null;
        }

        var descriptor = stream.SafeFileHandle.DangerousGetHandle().ToInt64();
        return new FileInfo($"/proc/self/fd/{descriptor}").LinkTarget;
    }
}
