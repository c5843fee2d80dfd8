"""Who is asking and what they may do: tokens, viewers, who may create games and how many, stream tickets."""
