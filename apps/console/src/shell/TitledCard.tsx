import { Card, Text, type CardProps } from '@mantine/core';
import type { ReactNode } from 'react';

/** A bordered card with its title on top: a section of a page. */
export function TitledCard({ title, children, ...card }: CardProps & { title: string; children: ReactNode; 'data-testid'?: string }) {
  return (
    <Card withBorder {...card}>
      <Text fw={600} mb="sm">
        {title}
      </Text>
      {children}
    </Card>
  );
}
