namespace Salsa.Grid.Tests;

/// <summary>A grain whose state lives in the cluster's grain storage.</summary>
public interface ICounterGrain : IGrainWithStringKey
{
    Task<int> AddAsync(int amount);

    Task<int> GetAsync();
}

[GenerateSerializer]
public sealed class CounterState
{
    [Id(0)]
    public int Total { get; set; }
}

public sealed class CounterGrain([PersistentState("counter")] IPersistentState<CounterState> state) : Grain, ICounterGrain
{
    public async Task<int> AddAsync(int amount)
    {
        state.State.Total += amount;
        await state.WriteStateAsync();
        return state.State.Total;
    }

    public Task<int> GetAsync() => Task.FromResult(state.State.Total);
}
